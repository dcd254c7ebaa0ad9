$ qconf -Arqs to-value-11.input
