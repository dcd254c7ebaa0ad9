qsub -terse -N srt -b y -l s_rt=0:4:0 /bin/sleep 3000
