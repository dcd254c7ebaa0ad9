$ qconf -Ackpt interface-cray-ckpt.input
