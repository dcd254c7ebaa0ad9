$ qconf -Arqs man2.input
