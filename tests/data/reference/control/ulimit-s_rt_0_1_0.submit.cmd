$ qsub -terse -N ulimit-s_rt_0_1_0 -o out/ulimit-s_rt_0_1_0.o -e out/ulimit-s_rt_0_1_0.e -S /bin/bash -l s_rt=0:1:0 ulimits.sh
