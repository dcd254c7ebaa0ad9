$ qsub -h -b y -l h_vmem=1g /bin/true
