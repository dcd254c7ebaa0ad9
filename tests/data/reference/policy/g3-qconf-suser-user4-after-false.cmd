# as root at 2026-11-27T23:54:11Z (epoch 1795823651)
$ qconf -suser sgeuser4
