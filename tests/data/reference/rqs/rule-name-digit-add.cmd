$ qconf -Arqs rule-name-digit.input
