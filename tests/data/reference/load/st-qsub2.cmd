$ sge_as_user qsub -q all.q -b y -o /dev/null -e /dev/null -N st2 /bin/sleep 900
