$ qconf -Arqs unknown-complex.input
