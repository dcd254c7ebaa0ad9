$ sge_as_user qsub -q all.q -b y -o /dev/null -e /dev/null -N ltjob /bin/sleep 60
