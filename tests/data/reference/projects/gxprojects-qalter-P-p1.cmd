$ sge_as_user qalter -P p1 110
