$ qconf -Arqs to-value-34.input
