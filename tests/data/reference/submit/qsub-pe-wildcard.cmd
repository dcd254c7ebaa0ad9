$ qsub -h -b y -pe 'sm*' 2 /bin/true
