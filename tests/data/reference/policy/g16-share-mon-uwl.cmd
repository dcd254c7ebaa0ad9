# as root at 2026-11-28T00:14:11Z (epoch 1795824851)
$ sge_share_mon -c 1 -h
