$ qconf -Arqs to-value-35.input
