$ qconf -Arqs err-unknown-complex.input
