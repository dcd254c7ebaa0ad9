$ sge_as_user qconf -aattr resource_quota limit compiler_lic=1 rule_set_4/1
