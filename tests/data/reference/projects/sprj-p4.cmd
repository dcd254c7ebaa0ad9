$ qconf -sprj p4
