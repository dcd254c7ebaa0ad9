$ qconf -Arqs enabled-no.input
