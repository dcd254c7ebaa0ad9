$ qconf -Ackpt when-r.input
