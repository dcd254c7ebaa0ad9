$ qsub -h -b y -l cdbl=0x10 /bin/true
