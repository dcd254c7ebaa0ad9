$ qconf -Arqs multi-to.input
