$ qconf -Arqs rule-set-2.input
