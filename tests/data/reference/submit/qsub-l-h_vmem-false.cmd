$ qsub -h -b y -l h_vmem=false /bin/true
