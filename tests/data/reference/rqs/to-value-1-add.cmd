$ qconf -Arqs to-value-1.input
