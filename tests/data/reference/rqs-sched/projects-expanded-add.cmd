$ qconf -Arqs projects-expanded.input
