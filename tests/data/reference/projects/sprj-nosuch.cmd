$ qconf -sprj nosuch
