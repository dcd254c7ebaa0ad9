$ qconf -Arqs to-value-14.input
