$ qconf -Mrqs mrqs-rule-set-9.input rule_set_4
