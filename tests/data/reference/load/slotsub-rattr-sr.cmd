$ qconf -rattr queue subordinate_list "slots=2(low.q:1:sr)" all.q
