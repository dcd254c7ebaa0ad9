$ qconf -Arqs accepted-duplicate-rule-name.input
