$ qconf -aattr queue ckpt_list nosuch ck.q
