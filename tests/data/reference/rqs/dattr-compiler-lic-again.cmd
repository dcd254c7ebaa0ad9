$ qconf -dattr resource_quota limit compiler_lic=5 ruleset_1/1
