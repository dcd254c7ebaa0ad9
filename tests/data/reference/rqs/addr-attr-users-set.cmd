$ qconf -mattr resource_quota users roland ruleset_1
