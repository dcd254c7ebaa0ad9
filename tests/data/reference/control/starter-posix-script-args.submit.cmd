$ qsub -terse -N starter-posix-script-args -o out/starter-posix-script-args.o -e out/starter-posix-script-args.e showme.sh a1 b 2
