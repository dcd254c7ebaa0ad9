$ qconf -Mcal
