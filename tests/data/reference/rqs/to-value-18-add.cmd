$ qconf -Arqs to-value-18.input
