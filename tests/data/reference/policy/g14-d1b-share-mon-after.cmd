# as root at 2026-11-28T00:12:34Z (epoch 1795824754)
$ sge_share_mon -c 1 -h
