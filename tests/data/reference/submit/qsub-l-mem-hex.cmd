$ qsub -h -b y -l h_vmem=0x100 /bin/true
