$ qconf -Ackpt interface-cpr.input
