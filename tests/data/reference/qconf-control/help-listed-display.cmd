$ qconf -display :0
