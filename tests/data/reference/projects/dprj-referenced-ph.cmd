$ qconf -dprj ph
