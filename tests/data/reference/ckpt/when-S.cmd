$ qconf -Ackpt when-S.input
