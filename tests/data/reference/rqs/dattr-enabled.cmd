$ qconf -dattr resource_quota enabled true ruleset_1
