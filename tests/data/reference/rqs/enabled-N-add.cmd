$ qconf -Arqs enabled-N.input
