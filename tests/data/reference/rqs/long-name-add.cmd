$ qconf -Arqs long-name.input
