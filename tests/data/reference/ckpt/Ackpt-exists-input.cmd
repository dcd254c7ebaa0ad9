$ qconf -Ackpt Ackpt-exists-input.input
