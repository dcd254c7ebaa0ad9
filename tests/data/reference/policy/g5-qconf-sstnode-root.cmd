# as root at 2026-11-27T23:56:14Z (epoch 1795823774)
$ qconf -sstnode /
