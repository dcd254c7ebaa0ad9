# as root at 2026-11-28T00:09:15Z (epoch 1795824555)
$ qstat -ext -u *
