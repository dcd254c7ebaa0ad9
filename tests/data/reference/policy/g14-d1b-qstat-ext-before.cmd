# as root at 2026-11-28T00:11:41Z (epoch 1795824701)
$ qstat -ext -u *
