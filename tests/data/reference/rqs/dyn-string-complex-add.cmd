$ qconf -Arqs dyn-string-complex.input
