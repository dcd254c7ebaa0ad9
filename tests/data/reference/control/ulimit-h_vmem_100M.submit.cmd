$ qsub -terse -N ulimit-h_vmem_100M -o out/ulimit-h_vmem_100M.o -e out/ulimit-h_vmem_100M.e -S /bin/bash -l h_vmem=100M ulimits.sh
