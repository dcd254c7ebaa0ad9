$ qsub -terse -N prolog-exit100 -o out/prolog-exit100.o -e out/prolog-exit100.e simple.sh
