$ qconf -Arqs enabled-0.input
