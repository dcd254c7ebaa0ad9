$ qsub -h -N userjob -b y /bin/true
