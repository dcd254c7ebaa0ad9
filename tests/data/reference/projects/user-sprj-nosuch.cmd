$ sge_as_user qconf -sprj nosuch
