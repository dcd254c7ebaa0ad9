$ qsub -h -b y -M a@b,c@d /bin/true
