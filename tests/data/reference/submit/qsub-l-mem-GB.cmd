$ qsub -h -b y -l h_vmem=1GB /bin/true
