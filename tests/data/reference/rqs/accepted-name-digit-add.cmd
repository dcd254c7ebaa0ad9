$ qconf -Arqs accepted-name-digit.input
