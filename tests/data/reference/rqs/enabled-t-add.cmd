$ qconf -Arqs enabled-t.input
