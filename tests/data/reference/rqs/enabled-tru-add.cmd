$ qconf -Arqs enabled-tru.input
