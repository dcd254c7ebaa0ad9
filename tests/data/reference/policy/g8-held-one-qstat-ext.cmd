# as root at 2026-11-28T00:06:21Z (epoch 1795824381)
$ qstat -ext -u *
