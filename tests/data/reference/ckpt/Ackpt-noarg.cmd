$ qconf -Ackpt
