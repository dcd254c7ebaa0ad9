$ qconf -Aattr resource_quota attrfile-to-slots20.input ruleset_1/1
