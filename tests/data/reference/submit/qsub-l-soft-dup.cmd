$ qsub -h -b y -l h_rt=100 -soft -l h_rt=200 /bin/true
