$ qconf -Aattr resource_quota attrfile-to-compiler-lic5.input ruleset_1/1
