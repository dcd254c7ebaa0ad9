$ qsub -terse -N ulimit-none -o out/ulimit-none.o -e out/ulimit-none.e -S /bin/bash ulimits.sh
