$ qconf -Arqs err-unknown-keyword.input
