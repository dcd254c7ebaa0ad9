$ qconf -Rattr resource_quota attrfile-compiler-lic5.input ruleset_1/arch_rule
