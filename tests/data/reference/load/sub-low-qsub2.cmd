$ sge_as_user qsub -q low.q -b y -o /dev/null -e /dev/null -N low2 /bin/sleep 900
