$ qconf -bonsai
