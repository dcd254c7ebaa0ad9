# as root at 2026-11-28T00:07:32Z (epoch 1795824452)
$ qstat -u *
