$ qconf -srqs ruleset1,ruleset2
