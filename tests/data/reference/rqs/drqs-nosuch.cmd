$ qconf -drqs unknown_rule_set
