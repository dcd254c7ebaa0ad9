$ qconf -Arqs err-unknown-filter-keyword.input
