$ qconf -Mrqs mrqs-bad-content.input rule_set_3
