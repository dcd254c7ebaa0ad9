$ qconf -Mrqs mrqs-rule-set-3.input rule_set_4
