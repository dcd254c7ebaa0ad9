$ qconf -Mcal Mcal-cal1.input
