$ qconf -rattr queue subordinate_list "slots=2(low.q:1:lr)" all.q
