$ sge_as_user qquota -l slots
