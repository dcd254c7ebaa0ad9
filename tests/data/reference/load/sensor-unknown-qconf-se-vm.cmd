$ qconf -se vm
