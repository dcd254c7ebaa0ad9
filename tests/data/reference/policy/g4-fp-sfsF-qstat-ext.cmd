# as root at 2026-11-27T23:55:22Z (epoch 1795823722)
$ qstat -ext -u *
