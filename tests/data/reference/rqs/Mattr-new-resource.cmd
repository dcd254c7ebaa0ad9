$ qconf -Mattr resource_quota attrfile-new-resource5.input ruleset_1/1
