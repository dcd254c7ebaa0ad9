$ qconf -clear
