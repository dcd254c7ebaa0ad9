$ qsub -terse -N h_fsize-1M-dd-sh -o out/h_fsize-1M-dd-sh.o -e out/h_fsize-1M-dd-sh.e -l h_fsize=1M fsize.sh
