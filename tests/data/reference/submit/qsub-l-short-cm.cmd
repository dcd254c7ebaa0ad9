$ qsub -h -b y -l cm=1G /bin/true
