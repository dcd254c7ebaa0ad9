$ qsub -terse -N prolog-exit0-envdump -o out/prolog-exit0-envdump.o -e out/prolog-exit0-envdump.e envdump.sh
