$ qconf -Arqs enabled-f.input
