$ qconf -Arqs err-duplicate-name-attr.input
