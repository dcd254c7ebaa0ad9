$ qconf -Arqs to-value-12.input
