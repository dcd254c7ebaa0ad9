$ qsub -h -b y -hold_jid nosuchjobname /bin/true
