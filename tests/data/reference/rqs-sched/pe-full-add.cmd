$ qconf -Arqs pe-full.input
