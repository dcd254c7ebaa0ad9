$ qconf -srqs rule_set_3
