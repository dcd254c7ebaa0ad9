$ qconf -Arqs pes-expanded.input
