$ qconf -Arqs to-value-23.input
