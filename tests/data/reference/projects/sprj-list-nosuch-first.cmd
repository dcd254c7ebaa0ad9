$ qconf -sprj nosuch,p1
