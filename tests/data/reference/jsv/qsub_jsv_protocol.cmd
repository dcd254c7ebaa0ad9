qsub -jsv $DIR/log.sh -N capt -l h_rt=100 -pe smp 2 -v FOO=bar -ac x=1 -b y -o /dev/null -j y /bin/sleep 1  (lines the JSV received)
