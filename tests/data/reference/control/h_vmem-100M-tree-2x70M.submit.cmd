$ qsub -terse -N h_vmem-100M-tree-2x70M -o out/h_vmem-100M-tree-2x70M.o -e out/h_vmem-100M-tree-2x70M.e -l h_vmem=100M vmem-tree.sh
