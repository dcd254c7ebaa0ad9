$ sge_as_user qquota
