$ qconf -Arqs desc-NONE.input
