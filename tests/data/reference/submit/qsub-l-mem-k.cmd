$ qsub -h -b y -l h_vmem=1k /bin/true
