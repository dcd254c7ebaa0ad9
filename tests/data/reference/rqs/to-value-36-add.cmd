$ qconf -Arqs to-value-36.input
