$ qsub -terse -N exit100 -o out/exit100.o -e out/exit100.e exit100.sh
