$ qconf -Mrqs mrqs-two.input rule_set_4,rule_set_7
