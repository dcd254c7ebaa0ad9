# as root at 2026-11-27T23:53:49Z (epoch 1795823629)
$ qconf -suser sgeuser
