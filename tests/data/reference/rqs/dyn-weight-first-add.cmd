$ qconf -Arqs dyn-weight-first.input
