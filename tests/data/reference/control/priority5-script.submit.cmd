$ qsub -terse -N priority5-script -o out/priority5-script.o -e out/priority5-script.e niceshow.sh
