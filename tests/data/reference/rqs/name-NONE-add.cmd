$ qconf -Arqs name-NONE.input
