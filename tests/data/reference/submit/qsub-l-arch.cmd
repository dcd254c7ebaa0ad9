$ qsub -h -b y -l arch=lx-amd64 /bin/true
