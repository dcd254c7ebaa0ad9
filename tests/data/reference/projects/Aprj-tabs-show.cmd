$ qconf -sprj pt
