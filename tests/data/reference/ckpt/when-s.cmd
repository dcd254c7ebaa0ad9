$ qconf -Ackpt when-s.input
