$ qsub -h -b y -l cnoreq=x /bin/true
