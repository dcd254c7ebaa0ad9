$ qconf -Arqs to-value-6.input
