$ qconf -Arqs enabled-on.input
