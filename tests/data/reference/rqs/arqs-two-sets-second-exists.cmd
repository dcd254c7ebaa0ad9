$ qconf -Arqs two-sets-second-exists.input
