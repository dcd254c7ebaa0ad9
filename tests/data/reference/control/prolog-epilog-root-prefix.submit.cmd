$ qsub -terse -N prolog-epilog-root-prefix -o out/prolog-epilog-root-prefix.o -e out/prolog-epilog-root-prefix.e envdump.sh
