$ qconf -mattr resource_quota limit new_resource=9 ruleset_1/1
