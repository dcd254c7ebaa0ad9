$ sge_as_user qalter -P pin 103
