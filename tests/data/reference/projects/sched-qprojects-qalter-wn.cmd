$ sge_as_user qalter -w n 119
