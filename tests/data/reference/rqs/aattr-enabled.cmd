$ qconf -aattr resource_quota enabled true ruleset_1
