$ qconf -sprj p1,nosuch
