$ qsub -h -b y -N 'aéb' /bin/true
