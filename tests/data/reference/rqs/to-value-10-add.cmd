$ qconf -Arqs to-value-10.input
