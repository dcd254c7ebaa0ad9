# as root at 2026-11-28T00:05:59Z (epoch 1795824359)
$ qstat -ext -u *
