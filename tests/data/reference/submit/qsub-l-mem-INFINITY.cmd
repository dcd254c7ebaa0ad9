$ qsub -h -b y -l h_vmem=INFINITY /bin/true
