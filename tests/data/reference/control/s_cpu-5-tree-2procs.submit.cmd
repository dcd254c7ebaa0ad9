$ qsub -terse -N s_cpu-5-tree-2procs -o out/s_cpu-5-tree-2procs.o -e out/s_cpu-5-tree-2procs.e -S /bin/bash -l s_cpu=0:0:5 cpu-tree.sh
