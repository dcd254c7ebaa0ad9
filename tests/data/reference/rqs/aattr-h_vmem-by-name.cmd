$ qconf -aattr resource_quota limit h_vmem=1G ruleset_1/arch_rule
