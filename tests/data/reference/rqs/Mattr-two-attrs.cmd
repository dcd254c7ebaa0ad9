$ qconf -Mattr resource_quota attrfile-two-attrs.input ruleset_1/1
