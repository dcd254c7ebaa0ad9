$ qconf -Ackpt signal-foo.input
