$ qconf -Arqs enabled-True.input
