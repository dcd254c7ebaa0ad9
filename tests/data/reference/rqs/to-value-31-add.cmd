$ qconf -Arqs to-value-31.input
