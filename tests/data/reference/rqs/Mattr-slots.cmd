$ qconf -Mattr resource_quota attrfile-slots20.input ruleset_1/1
