$ qconf -Arqs to-value-33.input
