# as root at 2026-11-27T23:58:23Z (epoch 1795823903)
$ qstat -ext -u *
