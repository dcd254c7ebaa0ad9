# as root at 2026-11-28T00:05:50Z (epoch 1795824350)
$ qstat -ext -u *
