SGE_JSV_TIMEOUT=2 qsub -jsv $DIR/correct.sh -N capt -b y -o /dev/null -j y /bin/true
