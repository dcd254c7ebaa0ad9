$ qconf -sprj
