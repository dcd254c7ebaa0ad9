$ qconf -Ackpt signal-99.input
