$ qsub -h -b y -l a=lx-amd64 /bin/true
