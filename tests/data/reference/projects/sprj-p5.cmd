$ qconf -sprj p5
