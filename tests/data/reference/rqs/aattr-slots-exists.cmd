$ qconf -aattr resource_quota limit slots=20 ruleset_1/1
