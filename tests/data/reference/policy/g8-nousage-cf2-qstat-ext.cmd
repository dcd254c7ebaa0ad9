# as root at 2026-11-28T00:04:39Z (epoch 1795824279)
$ qstat -ext -u *
