$ qconf -Arqs dyn-malformed.input
