$ qconf -sprj p7
