$ qconf -rattr resource_quota limit slots=8,compiler_lic=2 ruleset_1/arch_rule
