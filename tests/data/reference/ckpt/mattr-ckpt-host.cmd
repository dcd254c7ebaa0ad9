$ qconf -mattr queue ckpt_list c1,[vm=nosuch] ck.q
