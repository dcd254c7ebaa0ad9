# as root at 2026-11-27T23:56:52Z (epoch 1795823812)
$ qstat -ext -u *
