$ qconf -Arqs layout.input
