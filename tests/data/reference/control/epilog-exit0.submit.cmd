$ qsub -terse -N epilog-exit0 -o out/epilog-exit0.o -e out/epilog-exit0.e simple.sh
