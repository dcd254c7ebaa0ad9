$ qsub -terse -N h_fsize-1M-dd -o out/h_fsize-1M-dd.o -e out/h_fsize-1M-dd.e -S /bin/bash -l h_fsize=1M fsize.sh
