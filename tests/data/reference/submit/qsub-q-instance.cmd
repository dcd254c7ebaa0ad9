$ qsub -h -b y -q all.q@vm /bin/true
