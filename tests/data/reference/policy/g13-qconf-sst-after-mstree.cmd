# as root at 2026-11-28T00:10:09Z (epoch 1795824609)
$ qconf -sst
