# as root at 2026-11-27T23:55:43Z (epoch 1795823743)
$ qstat -ext -u *
