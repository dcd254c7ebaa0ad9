$ sge_as_user qconf -sprjl
