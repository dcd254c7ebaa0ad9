$ qconf -Ackpt when-sm.input
