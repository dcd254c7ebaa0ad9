$ qsub -terse -N ulimit-h_stack_16M -o out/ulimit-h_stack_16M.o -e out/ulimit-h_stack_16M.e -S /bin/bash -l h_stack=16M ulimits.sh
