$ qsub -h -b y -soft -l slots=2 /bin/true
