$ qconf -Arqs err-duplicate-filter.input
