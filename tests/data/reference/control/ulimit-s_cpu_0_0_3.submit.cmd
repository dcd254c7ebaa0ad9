$ qsub -terse -N ulimit-s_cpu_0_0_3 -o out/ulimit-s_cpu_0_0_3.o -e out/ulimit-s_cpu_0_0_3.e -S /bin/bash -l s_cpu=0:0:3 ulimits.sh
