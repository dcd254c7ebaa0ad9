$ qconf -Arqs pe-range.input
