$ qconf -Ackpt when-a.input
