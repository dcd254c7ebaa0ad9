$ qsub -h -b y -l ccstr=AbC /bin/true
