$ qconf -ds vm
