$ qconf -srqs rule_set_6 rule_set_4
