$ qconf -Arqs to-value-19.input
