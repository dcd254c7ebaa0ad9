$ qconf -Ackpt interface-userdefined.input
