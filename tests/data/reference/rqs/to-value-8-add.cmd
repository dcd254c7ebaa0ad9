$ qconf -Arqs to-value-8.input
