# as sgeuser at 2026-11-27T23:57:31Z (epoch 1795823851)
$ qconf -clearusage
