$ qconf -Arqs ref-load-value.input
