$ qconf -Arqs indented-open.input
