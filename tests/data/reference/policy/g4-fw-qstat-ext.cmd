# as root at 2026-11-27T23:55:53Z (epoch 1795823753)
$ qstat -ext -u *
