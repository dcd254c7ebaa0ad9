$ qsub -h -b y -l 'h_rt=1, h_vmem=1G' /bin/true
