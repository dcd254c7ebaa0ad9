$ qconf -Mcal Mcal-bad.input
