$ qconf -Ackpt signal-10.input
