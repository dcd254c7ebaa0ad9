$ qsub -h -b y -l h_rt=100,h_vmem=1G -l h_rt=200 /bin/true
