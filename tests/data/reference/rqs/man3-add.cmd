$ qconf -Arqs man3.input
