$ qconf -Mattr resource_quota attrfile-users-to-compiler-lic5.input ruleset_1/1
