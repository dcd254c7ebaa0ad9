$ qsub -h -b y -ac =b /bin/true
