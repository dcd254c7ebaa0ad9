$ sge_as_user qalter -w e 185
