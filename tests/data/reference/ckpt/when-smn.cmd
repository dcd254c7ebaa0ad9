$ qconf -Ackpt when-smn.input
