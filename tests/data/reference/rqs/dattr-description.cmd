$ qconf -dattr resource_quota description new_desc ruleset_1
