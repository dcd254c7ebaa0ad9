$ qsub -h -b y -l h_vmem=1G -l h_rt=100 /bin/true
