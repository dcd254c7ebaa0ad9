$ qsub -h -b y -m bn /bin/true
