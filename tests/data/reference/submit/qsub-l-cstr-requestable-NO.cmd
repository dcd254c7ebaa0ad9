$ qsub -h -b y -l cstr=AbC /bin/true
