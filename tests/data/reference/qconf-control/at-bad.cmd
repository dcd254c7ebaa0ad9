$ qconf -at nosuch
