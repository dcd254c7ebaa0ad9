$ qconf -dl 01010000
