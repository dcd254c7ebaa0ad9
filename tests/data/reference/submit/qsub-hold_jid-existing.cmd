$ qsub -h -b y -hold_jid 97 /bin/true
