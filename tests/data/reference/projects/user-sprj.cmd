$ sge_as_user qconf -sprj p1
