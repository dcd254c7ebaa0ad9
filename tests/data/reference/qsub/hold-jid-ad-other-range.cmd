$ qsub -t 1-8 -hold_jid_ad 275 -b y /bin/true
