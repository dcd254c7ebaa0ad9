$ qsub -terse -N prolog-exit0 -o out/prolog-exit0.o -e out/prolog-exit0.e simple.sh
