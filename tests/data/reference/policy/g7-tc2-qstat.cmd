# as root at 2026-11-28T00:00:29Z (epoch 1795824029)
$ qstat -u *
