$ qconf -Ackpt signal-NONE.input
