$ qconf -mattr rqs enabled true ruleset_1
