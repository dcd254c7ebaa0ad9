# as root at 2026-11-27T23:56:31Z (epoch 1795823791)
$ qconf -sst
