$ sge_as_user qalter -P p2 103
