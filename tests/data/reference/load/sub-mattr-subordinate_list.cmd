$ qconf -mattr queue subordinate_list low.q=2 all.q
