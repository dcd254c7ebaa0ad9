$ qconf -kt scheduler
