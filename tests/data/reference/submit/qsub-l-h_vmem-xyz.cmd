$ qsub -h -b y -l h_vmem=xyz /bin/true
