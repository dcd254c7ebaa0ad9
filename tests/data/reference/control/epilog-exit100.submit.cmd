$ qsub -terse -N epilog-exit100 -o out/epilog-exit100.o -e out/epilog-exit100.e simple.sh
