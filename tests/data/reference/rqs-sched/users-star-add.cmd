$ qconf -Arqs users-star.input
