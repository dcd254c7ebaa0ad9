$ qconf -Arqs ref-unknown-pe.input
