$ sge_as_user qalter -P nosuch 103
