$ qconf -mattr resource_quota enabled maybe ruleset_1
