$ qconf -Arqs to-value-9.input
