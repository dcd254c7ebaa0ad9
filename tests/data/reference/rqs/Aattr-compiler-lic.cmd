$ qconf -Aattr resource_quota attrfile-compiler-lic5.input ruleset_1/1
