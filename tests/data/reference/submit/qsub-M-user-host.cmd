$ qsub -h -b y -M a@b /bin/true
