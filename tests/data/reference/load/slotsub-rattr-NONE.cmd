$ qconf -rattr queue subordinate_list NONE all.q
