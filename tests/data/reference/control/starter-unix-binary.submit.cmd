$ qsub -terse -N starter-unix-binary -o out/starter-unix-binary.o -e out/starter-unix-binary.e -b y /bin/echo hello w o r l d
