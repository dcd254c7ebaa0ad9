$ qconf -Arqs to-value-3.input
