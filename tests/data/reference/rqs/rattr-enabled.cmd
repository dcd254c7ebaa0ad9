$ qconf -rattr resource_quota enabled true ruleset_1
