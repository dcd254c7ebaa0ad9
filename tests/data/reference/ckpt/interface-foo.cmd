$ qconf -Ackpt interface-foo.input
