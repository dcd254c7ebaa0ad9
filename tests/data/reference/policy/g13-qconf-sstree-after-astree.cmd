# as root at 2026-11-28T00:10:11Z (epoch 1795824611)
$ qconf -sstree
