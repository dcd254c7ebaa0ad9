$ qconf -Ackpt when-mxsr.input
