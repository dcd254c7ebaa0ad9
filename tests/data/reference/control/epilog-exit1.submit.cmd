$ qsub -terse -N epilog-exit1 -o out/epilog-exit1.o -e out/epilog-exit1.e simple.sh
