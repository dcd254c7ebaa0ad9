$ sge_as_user qalter -P pacl 103
