# as root at 2026-11-27T23:57:29Z (epoch 1795823849)
$ qstat -ext -u *
