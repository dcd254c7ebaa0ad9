$ qconf -Arqs close-on-limit-line.input
