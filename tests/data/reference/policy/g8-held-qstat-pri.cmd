# as root at 2026-11-28T00:06:12Z (epoch 1795824372)
$ qstat -pri -u *
