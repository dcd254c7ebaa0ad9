$ qconf -Ackpt name-template.input
