$ qconf -Arqs err-filter-after-to.input
