$ qsub -hold_jid_ad 99999 -b y /bin/true
