$ qsub -terse -N h_fsize-1M-binary-dd -o out/h_fsize-1M-binary-dd.o -e out/h_fsize-1M-binary-dd.e -b y -l h_fsize=1M dd if=/dev/zero of=out/fsize3.dat bs=1M count=5
