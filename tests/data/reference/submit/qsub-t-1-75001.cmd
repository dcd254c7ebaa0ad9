$ qsub -h -b y -t 1-75001 /bin/true
