# as root at 2026-11-27T23:58:45Z (epoch 1795823925)
$ qstat -ext -u *
