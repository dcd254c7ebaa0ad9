# as root at 2026-11-27T23:57:55Z (epoch 1795823875)
$ sge_share_mon -c 1 -h
