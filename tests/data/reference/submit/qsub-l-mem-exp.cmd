$ qsub -h -b y -l h_vmem=1e3 /bin/true
