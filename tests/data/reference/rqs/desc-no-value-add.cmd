$ qconf -Arqs desc-no-value.input
