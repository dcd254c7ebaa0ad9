$ qconf -Arqs to-value-15.input
