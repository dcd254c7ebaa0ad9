$ qconf -ackpt c1
