$ qconf -mattr resource_quota limit slots=1 ruleset_1
