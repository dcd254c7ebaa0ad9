$ qconf -Arqs one-line.input
