$ qconf -drqs two_a,nosuch,two_b
