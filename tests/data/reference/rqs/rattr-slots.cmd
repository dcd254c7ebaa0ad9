$ qconf -rattr resource_quota limit slots=7 ruleset_1/1
