$ qconf -Mrqs mrqs-two.input rule_set_4
