$ sge_as_user qsub -q all.q -b y -o /dev/null -e /dev/null -N high1 /bin/sleep 900
