$ qconf -srqsl rule_set_4
