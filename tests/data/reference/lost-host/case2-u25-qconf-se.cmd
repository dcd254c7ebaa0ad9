qconf -se vm
