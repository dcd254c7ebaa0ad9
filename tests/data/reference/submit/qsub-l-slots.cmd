$ qsub -h -b y -l slots=2 /bin/true
