$ qconf -Arqs to-value-22.input
