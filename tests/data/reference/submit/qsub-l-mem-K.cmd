$ qsub -h -b y -l h_vmem=1K /bin/true
