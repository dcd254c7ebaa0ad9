$ qconf -Arqs name-on-open-line.input
