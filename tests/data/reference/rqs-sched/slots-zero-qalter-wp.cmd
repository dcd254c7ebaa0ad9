$ sge_as_user qalter -w p 179
