$ qconf -srqs rule_set_4,rule_set_6
