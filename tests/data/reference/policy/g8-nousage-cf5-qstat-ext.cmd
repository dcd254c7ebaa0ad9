# as root at 2026-11-28T00:04:30Z (epoch 1795824270)
$ qstat -ext -u *
