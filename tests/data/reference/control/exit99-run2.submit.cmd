$ qsub -terse -N exit99-run2 -o out/exit99-run2.o -e out/exit99-run2.e exit99.sh
