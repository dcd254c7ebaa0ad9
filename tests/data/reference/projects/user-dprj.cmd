$ sge_as_user qconf -dprj p1
