$ qconf -Arqs long-description.input
