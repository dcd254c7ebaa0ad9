$ qconf -Arqs err-name-at.input
