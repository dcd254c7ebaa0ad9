$ qsub -terse -N ulimit-s_vmem_100M -o out/ulimit-s_vmem_100M.o -e out/ulimit-s_vmem_100M.e -S /bin/bash -l s_vmem=100M ulimits.sh
