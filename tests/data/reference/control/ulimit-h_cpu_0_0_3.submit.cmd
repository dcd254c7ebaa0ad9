$ qsub -terse -N ulimit-h_cpu_0_0_3 -o out/ulimit-h_cpu_0_0_3.o -e out/ulimit-h_cpu_0_0_3.e -S /bin/bash -l h_cpu=0:0:3 ulimits.sh
