$ qconf -mattr resource_quota limit slots=5 ruleset_1/1
