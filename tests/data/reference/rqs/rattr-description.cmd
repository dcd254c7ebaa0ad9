$ qconf -rattr resource_quota description new_desc ruleset_1
