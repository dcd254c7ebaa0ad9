$ qconf -Arqs rule-name-dot.input
