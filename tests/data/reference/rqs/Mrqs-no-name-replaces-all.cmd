$ qconf -Mrqs mrqs-rule-set-9.input
