$ qsub -h -b y -p 1023 /bin/true
