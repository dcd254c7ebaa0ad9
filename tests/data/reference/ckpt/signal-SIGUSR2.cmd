$ qconf -Ackpt signal-SIGUSR2.input
