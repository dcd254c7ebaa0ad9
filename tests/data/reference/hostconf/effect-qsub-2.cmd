$ sge_as_user qsub -h -b y -o /dev/null -e /dev/null /bin/true
