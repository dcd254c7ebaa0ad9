$ qconf -Arqs enabled-1.input
