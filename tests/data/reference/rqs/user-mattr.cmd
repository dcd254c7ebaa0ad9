$ sge_as_user qconf -mattr resource_quota enabled true rule_set_4
