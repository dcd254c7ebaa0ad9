$ qsub -terse -N starter-posix-binary -o out/starter-posix-binary.o -e out/starter-posix-binary.e -b y /bin/echo hello w o r l d
