$ qconf -Arqs no-indent.input
