$ qconf -sprj p1 p2
