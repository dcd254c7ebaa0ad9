$ qsub -terse -N processors0-script -o out/processors0-script.o -e out/processors0-script.e niceshow.sh
