# as root at 2026-11-27T23:58:32Z (epoch 1795823912)
$ qstat -ext -u *
