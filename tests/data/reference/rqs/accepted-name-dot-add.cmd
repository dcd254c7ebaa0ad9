$ qconf -Arqs accepted-name-dot.input
