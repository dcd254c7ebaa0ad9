$ qsub -h -b y -l q=all.q /bin/true
