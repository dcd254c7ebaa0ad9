$ qconf -sprj p3
