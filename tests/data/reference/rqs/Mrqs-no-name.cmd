$ qconf -Mrqs mrqs-rule-set-3b.input
