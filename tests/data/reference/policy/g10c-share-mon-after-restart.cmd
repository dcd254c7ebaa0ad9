# as root at 2026-11-28T00:07:32Z (epoch 1795824452)
$ sge_share_mon -c 1 -h
