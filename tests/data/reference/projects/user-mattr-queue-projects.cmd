$ sge_as_user qconf -mattr queue projects p1 all.q
