# as root at 2026-11-27T23:57:18Z (epoch 1795823838)
$ sge_share_mon -c 1 -t
