$ qconf -Ackpt signal-TERM.input
