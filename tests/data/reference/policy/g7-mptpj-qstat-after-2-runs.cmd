# as root at 2026-11-28T00:01:54Z (epoch 1795824114)
$ qstat -u *
