$ qsub -terse -N epilog-exit99 -o out/epilog-exit99.o -e out/epilog-exit99.e simple.sh
