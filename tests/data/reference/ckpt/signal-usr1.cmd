$ qconf -Ackpt signal-usr1.input
