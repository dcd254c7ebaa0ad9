$ qconf -Arqs man1.input
