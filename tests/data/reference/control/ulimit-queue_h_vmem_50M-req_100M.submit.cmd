$ qsub -terse -N ulimit-queue_h_vmem_50M-req_100M -o out/ulimit-queue_h_vmem_50M-req_100M.o -e out/ulimit-queue_h_vmem_50M-req_100M.e -S /bin/bash -l h_vmem=100M ulimits.sh
