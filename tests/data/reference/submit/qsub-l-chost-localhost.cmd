$ qsub -h -b y -l chost=localhost /bin/true
