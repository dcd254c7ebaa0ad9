$ qconf -Arqs err-missing-closing-brace-filter.input
