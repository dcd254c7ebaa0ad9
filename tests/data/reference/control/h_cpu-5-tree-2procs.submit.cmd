$ qsub -terse -N h_cpu-5-tree-2procs -o out/h_cpu-5-tree-2procs.o -e out/h_cpu-5-tree-2procs.e -S /bin/bash -l h_cpu=0:0:5 cpu-tree.sh
