$ qconf -Arqs dyn-unknown-complex.input
