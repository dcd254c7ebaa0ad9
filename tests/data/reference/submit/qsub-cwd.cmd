$ qsub -h -b y -cwd /bin/true
