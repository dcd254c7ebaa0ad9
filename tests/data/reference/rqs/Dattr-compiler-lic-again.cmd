$ qconf -Dattr resource_quota attrfile-compiler-lic20.input ruleset_1/1
