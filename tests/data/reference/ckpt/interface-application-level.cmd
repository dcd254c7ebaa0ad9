$ qconf -Ackpt interface-application-level.input
