$ qconf -Ackpt interface-transparent.input
