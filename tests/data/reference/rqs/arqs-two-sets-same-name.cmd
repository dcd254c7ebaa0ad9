$ qconf -Arqs two-sets-same-name.input
