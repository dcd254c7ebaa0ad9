$ qconf -Arqs to-value-38.input
