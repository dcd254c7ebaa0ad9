$ qconf -sprj p2,p1
