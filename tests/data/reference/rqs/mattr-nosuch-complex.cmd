$ qconf -mattr resource_quota limit nosuch_res=5 ruleset_1/1
