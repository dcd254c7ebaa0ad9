# as root at 2026-11-27T23:57:32Z (epoch 1795823852)
$ sge_share_mon -c 1 -h
