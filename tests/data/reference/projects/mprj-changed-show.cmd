$ qconf -sprj p1
