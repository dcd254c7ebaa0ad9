$ sge_as_user qconf -drqs rule_set_4
