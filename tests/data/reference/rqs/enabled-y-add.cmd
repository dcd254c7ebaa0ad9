$ qconf -Arqs enabled-y.input
