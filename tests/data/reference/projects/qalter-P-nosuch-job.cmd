$ sge_as_user qalter -P p1 99999
