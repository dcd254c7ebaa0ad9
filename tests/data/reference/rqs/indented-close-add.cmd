$ qconf -Arqs indented-close.input
