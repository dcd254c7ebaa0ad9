# as root at 2026-11-28T00:04:48Z (epoch 1795824288)
$ qstat -ext -u *
