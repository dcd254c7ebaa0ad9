$ sge_as_user qsub -q all.q -b y -o /dev/null -e /dev/null -N lt2job /bin/sleep 60
