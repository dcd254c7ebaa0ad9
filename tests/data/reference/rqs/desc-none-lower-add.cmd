$ qconf -Arqs desc-none-lower.input
