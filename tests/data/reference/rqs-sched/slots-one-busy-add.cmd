$ qconf -Arqs slots-one-busy.input
