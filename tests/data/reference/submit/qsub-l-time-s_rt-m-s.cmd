$ qsub -h -b y -l s_rt=1:30 /bin/true
