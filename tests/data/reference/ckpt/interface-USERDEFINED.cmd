$ qconf -Ackpt interface-USERDEFINED.input
