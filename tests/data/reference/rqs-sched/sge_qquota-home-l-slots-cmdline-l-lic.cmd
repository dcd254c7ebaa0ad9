$ sge_as_user qquota -l lic
