$ sge_as_user qsub -q cal.q -b y -o /dev/null -e /dev/null -N calrun /bin/sleep 900
