$ qconf -Ackpt commands.input
