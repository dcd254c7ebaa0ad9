# as root at 2026-11-27T23:55:34Z (epoch 1795823734)
$ qstat -ext -u *
