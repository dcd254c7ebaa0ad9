$ qconf -Mattr resource_quota attrfile-description.input ruleset_1
