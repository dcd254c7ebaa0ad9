$ qsub -terse -N prolog-sgeuser-prefix -o out/prolog-sgeuser-prefix.o -e out/prolog-sgeuser-prefix.e simple.sh
