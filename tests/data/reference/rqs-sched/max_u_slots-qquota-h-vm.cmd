$ sge_as_user qquota -h vm
