$ qconf -Arqs two-sets-first-exists.input
