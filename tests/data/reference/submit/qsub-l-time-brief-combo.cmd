$ qsub -h -b y -l h_rt=00:30:00,s_rt=1:30,h_cpu=90 /bin/true
