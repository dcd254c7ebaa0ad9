$ qconf -srqs ruleset_1
