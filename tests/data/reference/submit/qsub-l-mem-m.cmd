$ qsub -h -b y -l h_vmem=1m /bin/true
