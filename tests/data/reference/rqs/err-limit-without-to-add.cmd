$ qconf -Arqs err-limit-without-to.input
