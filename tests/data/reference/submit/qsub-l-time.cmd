$ qsub -h -b y -l h_rt=00:30:00,h_cpu=90 /bin/true
