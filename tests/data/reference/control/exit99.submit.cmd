$ qsub -terse -N exit99 -o out/exit99.o -e out/exit99.e exit99.sh
