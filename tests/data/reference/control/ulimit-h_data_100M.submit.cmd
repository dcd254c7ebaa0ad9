$ qsub -terse -N ulimit-h_data_100M -o out/ulimit-h_data_100M.o -e out/ulimit-h_data_100M.e -S /bin/bash -l h_data=100M ulimits.sh
