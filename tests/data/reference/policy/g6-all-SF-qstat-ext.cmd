# as root at 2026-11-27T23:59:03Z (epoch 1795823943)
$ qstat -ext -u *
