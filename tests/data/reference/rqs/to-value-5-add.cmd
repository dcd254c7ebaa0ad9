$ qconf -Arqs to-value-5.input
