$ qconf -mattr resource_quota nosuch 1 ruleset_1
