$ qconf -srqs rule_set_5
