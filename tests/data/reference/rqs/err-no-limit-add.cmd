$ qconf -Arqs err-no-limit.input
