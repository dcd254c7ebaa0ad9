$ sge_as_user qsub -q low.q -b y -o /dev/null -e /dev/null -N slow1 /bin/sleep 900
