$ sge_as_user qconf -drqs nosuch
