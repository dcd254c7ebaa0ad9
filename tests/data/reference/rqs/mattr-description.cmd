$ qconf -mattr resource_quota description "x y" ruleset_1
