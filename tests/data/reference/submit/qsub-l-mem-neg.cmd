$ qsub -h -b y -l h_vmem=-1 /bin/true
