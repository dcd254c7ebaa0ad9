$ qconf -dattr resource_quota limit h_vmem=7G ruleset_1/arch_rule
