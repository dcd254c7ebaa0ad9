$ sge_as_user qquota -l compiler_lic
