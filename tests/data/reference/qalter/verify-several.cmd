$ qalter -verify -p -3 -l h_rt=100,arch=lx-amd64 -o /tmp/o -ckpt c1 -c 00:01:00 -A acct -hold_jid 1 58
