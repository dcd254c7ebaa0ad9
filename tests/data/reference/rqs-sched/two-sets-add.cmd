$ qconf -Arqs two-sets.input
