$ qconf -sprj p6
