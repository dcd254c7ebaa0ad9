$ qsub -terse -N starter-posix-script -o out/starter-posix-script.o -e out/starter-posix-script.e showme.sh
