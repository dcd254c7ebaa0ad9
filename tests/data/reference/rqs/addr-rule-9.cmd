$ qconf -aattr resource_quota limit slots=1 ruleset_1/9
