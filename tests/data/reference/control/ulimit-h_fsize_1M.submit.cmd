$ qsub -terse -N ulimit-h_fsize_1M -o out/ulimit-h_fsize_1M.o -e out/ulimit-h_fsize_1M.e -S /bin/bash -l h_fsize=1M ulimits.sh
