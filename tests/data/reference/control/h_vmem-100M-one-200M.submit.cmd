$ qsub -terse -N h_vmem-100M-one-200M -o out/h_vmem-100M-one-200M.o -e out/h_vmem-100M-one-200M.e -l h_vmem=100M vmem-one.sh
