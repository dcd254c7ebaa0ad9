$ qconf -Arqs enabled-2.input
