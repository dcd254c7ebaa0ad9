$ qconf -Mrqs mrqs-two.input
