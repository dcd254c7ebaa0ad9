$ qconf -mattr resource_quota name ruleset_new ruleset_1
