$ qconf -Arqs name-all.input
