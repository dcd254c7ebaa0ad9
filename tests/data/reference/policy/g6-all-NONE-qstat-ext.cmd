# as root at 2026-11-27T23:58:54Z (epoch 1795823934)
$ qstat -ext -u *
