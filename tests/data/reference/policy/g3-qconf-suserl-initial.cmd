# as root at 2026-11-27T23:53:48Z (epoch 1795823628)
$ qconf -suserl
