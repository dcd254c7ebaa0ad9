# as root at 2026-11-27T23:54:00Z (epoch 1795823640)
$ qconf -suser alice
