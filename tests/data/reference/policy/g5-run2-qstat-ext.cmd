# as root at 2026-11-27T23:56:59Z (epoch 1795823819)
$ qstat -ext -u *
