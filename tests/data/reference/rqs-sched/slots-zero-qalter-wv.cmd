$ sge_as_user qalter -w v 179
