$ qsub -t 1-4 -hold_jid_ad 260 -b y /bin/true
