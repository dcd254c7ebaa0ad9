$ qconf -Arqs to-value-4.input
