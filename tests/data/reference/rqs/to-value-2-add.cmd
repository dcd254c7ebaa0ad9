$ qconf -Arqs to-value-2.input
