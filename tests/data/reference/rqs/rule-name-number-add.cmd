$ qconf -Arqs rule-name-number.input
