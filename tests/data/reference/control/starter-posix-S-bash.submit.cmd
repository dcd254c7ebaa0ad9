$ qsub -terse -N starter-posix-S-bash -o out/starter-posix-S-bash.o -e out/starter-posix-S-bash.e -S /bin/bash showme.sh
