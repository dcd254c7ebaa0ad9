# as root at 2026-11-27T23:57:41Z (epoch 1795823861)
$ qconf -suser sgeuser
