$ qconf -Arqs to-value-20.input
