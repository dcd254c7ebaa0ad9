$ qconf -Arqs to-value-7.input
