$ qconf -Arqs wrap.input
