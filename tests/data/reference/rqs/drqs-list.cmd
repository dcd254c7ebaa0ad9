$ qconf -drqs two_a,two_b
