$ qconf -Arqs dynamic.input
