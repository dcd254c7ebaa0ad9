$ qconf -ke all
