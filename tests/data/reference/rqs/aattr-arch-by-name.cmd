$ qconf -aattr resource_quota limit arch=sol-sparc64 ruleset_1/arch_rule
