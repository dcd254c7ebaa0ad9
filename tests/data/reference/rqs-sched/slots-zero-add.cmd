$ qconf -Arqs slots-zero.input
