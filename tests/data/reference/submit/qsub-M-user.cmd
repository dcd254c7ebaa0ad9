$ qsub -h -b y -M foo /bin/true
