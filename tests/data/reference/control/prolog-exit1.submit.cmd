$ qsub -terse -N prolog-exit1 -o out/prolog-exit1.o -e out/prolog-exit1.e simple.sh
