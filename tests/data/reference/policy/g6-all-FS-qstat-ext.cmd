# as root at 2026-11-27T23:59:12Z (epoch 1795823952)
$ qstat -ext -u *
