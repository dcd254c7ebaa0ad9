$ sge_as_user qconf -srqs rule_set_4
