$ qconf -Mcal Mcal-nosuch.input
