$ qconf -mattr queue ckpt_list nosuch ck.q
