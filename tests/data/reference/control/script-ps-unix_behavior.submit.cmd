$ qsub -terse -N script-ps-unix_behavior -o out/script-ps-unix_behavior.o -e out/script-ps-unix_behavior.e niceshow.sh
