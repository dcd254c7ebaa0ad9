$ qsub -h -b y -l s=2 /bin/true
