$ qconf -at scheduler
