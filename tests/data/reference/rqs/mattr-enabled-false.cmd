$ qconf -mattr resource_quota enabled false ruleset_1
