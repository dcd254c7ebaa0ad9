$ qconf -Arqs enabled-YES.input
