$ qconf -Arqs to-value-21.input
