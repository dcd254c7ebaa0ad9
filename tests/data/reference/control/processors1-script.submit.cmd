$ qsub -terse -N processors1-script -o out/processors1-script.o -e out/processors1-script.e niceshow.sh
