$ qconf -Ackpt interface-hibernator.input
