$ qsub -terse -N starter-unix-script -o out/starter-unix-script.o -e out/starter-unix-script.e showme.sh
