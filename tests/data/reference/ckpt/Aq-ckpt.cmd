$ qconf -Aq Aq-ckpt.input
