$ sge_as_user qalter -P '' 110
