$ sge_as_user qconf -dprj nosuch
