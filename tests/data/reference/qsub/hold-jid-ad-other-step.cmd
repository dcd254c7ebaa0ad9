$ qsub -t 1-4:2 -hold_jid_ad 259 -b y /bin/true
