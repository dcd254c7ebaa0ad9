$ qconf -Aq Aq-unknown-ckpt.input
