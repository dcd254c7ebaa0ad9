$ sge_as_user qalter -P pxacl 103
