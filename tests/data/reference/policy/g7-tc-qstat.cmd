# as root at 2026-11-28T00:00:20Z (epoch 1795824020)
$ qstat -u *
