$ qsub -h -b y -l h_vmem=1T /bin/true
