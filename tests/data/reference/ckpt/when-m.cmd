$ qconf -Ackpt when-m.input
