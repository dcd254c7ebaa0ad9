$ qsub -h -b y -l 'hostname=v*' /bin/true
