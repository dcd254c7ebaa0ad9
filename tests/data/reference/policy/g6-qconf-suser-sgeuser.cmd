# as root at 2026-11-27T23:58:05Z (epoch 1795823885)
$ qconf -suser sgeuser
