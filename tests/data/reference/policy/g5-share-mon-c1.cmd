# as root at 2026-11-27T23:57:14Z (epoch 1795823834)
$ sge_share_mon -c 1
