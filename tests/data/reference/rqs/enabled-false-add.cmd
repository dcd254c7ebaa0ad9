$ qconf -Arqs enabled-false.input
