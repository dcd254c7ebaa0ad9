# as root at 2026-11-27T23:57:15Z (epoch 1795823835)
$ sge_share_mon -c 1 -n
