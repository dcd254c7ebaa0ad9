$ qsub -h -b y -v A=1,=2 /bin/true
