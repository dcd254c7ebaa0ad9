$ qconf -Arqs to-value-17.input
