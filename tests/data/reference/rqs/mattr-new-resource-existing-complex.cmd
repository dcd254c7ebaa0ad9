$ qconf -mattr resource_quota limit new_resource=5 ruleset_1/1
