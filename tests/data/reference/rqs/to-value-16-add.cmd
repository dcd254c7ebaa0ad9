$ qconf -Arqs to-value-16.input
