# as root at 2026-11-27T23:56:05Z (epoch 1795823765)
$ qconf -sstnode /Root/nosuch
