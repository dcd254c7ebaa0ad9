$ qconf -Mrqs /nonexistent rule_set_3
