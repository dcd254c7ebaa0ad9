$ qconf -Arqs disabled.input
