$ qsub -terse -N prolog-exit99 -o out/prolog-exit99.o -e out/prolog-exit99.e simple.sh
