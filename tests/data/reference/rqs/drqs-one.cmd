$ qconf -drqs rule_set_6
