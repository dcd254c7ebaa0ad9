$ qconf -Arqs all-expanded.input
