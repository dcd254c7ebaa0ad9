$ qsub -h -b y -hold_jid 999999 /bin/true
