$ qsub -h -b y -l cbool=FALSE /bin/true
