$ qconf -Ackpt name-NONE.input
