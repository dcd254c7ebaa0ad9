$ qconf -Arqs to-value-32.input
