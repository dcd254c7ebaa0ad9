$ qconf -Mrqs mrqs-two.input rule_set_3,rule_set_4
