$ qsub -h -b y -l h=vm /bin/true
