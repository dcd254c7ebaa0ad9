$ sge_as_user qconf -srqsl
