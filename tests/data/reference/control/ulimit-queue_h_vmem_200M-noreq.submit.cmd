$ qsub -terse -N ulimit-queue_h_vmem_200M-noreq -o out/ulimit-queue_h_vmem_200M-noreq.o -e out/ulimit-queue_h_vmem_200M-noreq.e -S /bin/bash ulimits.sh
