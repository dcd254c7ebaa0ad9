$ qconf -Arqs err-missing-closing-brace-set.input
