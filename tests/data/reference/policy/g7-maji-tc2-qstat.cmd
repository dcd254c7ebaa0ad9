# as root at 2026-11-28T00:01:00Z (epoch 1795824060)
$ qstat -u *
