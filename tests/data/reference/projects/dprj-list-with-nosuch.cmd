$ qconf -dprj p5,nosuch,p4
