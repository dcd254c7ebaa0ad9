$ qsub -h -b y -hold_jid 0 /bin/true
