$ qconf -sprj p2
