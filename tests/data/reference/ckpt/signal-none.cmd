$ qconf -Ackpt signal-none.input
