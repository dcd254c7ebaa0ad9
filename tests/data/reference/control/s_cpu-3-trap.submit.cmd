$ qsub -terse -N s_cpu-3-trap -o out/s_cpu-3-trap.o -e out/s_cpu-3-trap.e -l s_cpu=0:0:3 scpu.sh
