sgeuser$ qrsub -N myar -A acct1 -d 1:0:0 -l h_rt=100 -pe smp 2
