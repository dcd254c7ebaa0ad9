$ qconf -mattr resource_quota limit slots=6,h_vmem=3G ruleset_1/1
