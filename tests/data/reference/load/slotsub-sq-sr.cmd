$ qconf -sq all.q | grep subordinate_list
