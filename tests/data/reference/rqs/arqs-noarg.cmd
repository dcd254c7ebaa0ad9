$ qconf -Arqs
