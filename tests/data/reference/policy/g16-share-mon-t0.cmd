# as root at 2026-11-28T00:14:05Z (epoch 1795824845)
$ sge_share_mon -c 1 -h
