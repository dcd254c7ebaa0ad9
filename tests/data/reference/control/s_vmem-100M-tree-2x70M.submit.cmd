$ qsub -terse -N s_vmem-100M-tree-2x70M -o out/s_vmem-100M-tree-2x70M.o -e out/s_vmem-100M-tree-2x70M.e -S /bin/bash -l s_vmem=100M vmem-tree-trap.sh
