# as root at 2026-11-27T23:55:12Z (epoch 1795823712)
$ qstat -ext -u *
