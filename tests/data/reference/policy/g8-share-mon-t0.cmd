# as root at 2026-11-28T00:03:37Z (epoch 1795824217)
$ sge_share_mon -c 1 -h
