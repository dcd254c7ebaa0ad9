$ qsub -terse -N ulimit-pe-smp2-h_vmem_100M -o out/ulimit-pe-smp2-h_vmem_100M.o -e out/ulimit-pe-smp2-h_vmem_100M.e -S /bin/bash -pe smp 2 -l h_vmem=100M ulimits.sh
