$ qconf -Arqs hosts-expanded.input
