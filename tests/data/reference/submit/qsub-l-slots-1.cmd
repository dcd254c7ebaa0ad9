$ qsub -h -b y -l slots=1 /bin/true
