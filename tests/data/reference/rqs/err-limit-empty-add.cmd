$ qconf -Arqs err-limit-empty.input
