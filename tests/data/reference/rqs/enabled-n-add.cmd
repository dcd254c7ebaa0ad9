$ qconf -Arqs enabled-n.input
