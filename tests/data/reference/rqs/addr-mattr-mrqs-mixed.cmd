$ qconf -mattr resource_quota limit slots=1 ruleset_1/1 rule_set_4/1
