$ sge_as_user qsub -h -P
