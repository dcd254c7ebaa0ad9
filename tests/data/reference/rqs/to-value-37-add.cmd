$ qconf -Arqs to-value-37.input
