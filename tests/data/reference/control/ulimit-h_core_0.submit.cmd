$ qsub -terse -N ulimit-h_core_0 -o out/ulimit-h_core_0.o -e out/ulimit-h_core_0.e -S /bin/bash -l h_core=0 ulimits.sh
