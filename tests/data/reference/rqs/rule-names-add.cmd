$ qconf -Arqs rule-names.input
