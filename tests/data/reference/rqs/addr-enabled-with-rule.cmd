$ qconf -mattr resource_quota enabled true ruleset_1/1
