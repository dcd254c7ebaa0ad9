$ qconf -mattr resource_quota to slots=1 ruleset_1/1
