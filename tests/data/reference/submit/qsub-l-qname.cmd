$ qsub -h -b y -l qname=all.q /bin/true
