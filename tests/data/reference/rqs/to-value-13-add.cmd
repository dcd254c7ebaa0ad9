$ qconf -Arqs to-value-13.input
