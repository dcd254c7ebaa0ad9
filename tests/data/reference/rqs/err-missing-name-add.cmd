$ qconf -Arqs err-missing-name.input
