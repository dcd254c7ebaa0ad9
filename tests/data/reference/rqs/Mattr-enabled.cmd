$ qconf -Mattr resource_quota attrfile-enabled-false.input ruleset_1
