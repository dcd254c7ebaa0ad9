# as root at 2026-11-28T00:12:05Z (epoch 1795824725)
$ sge_share_mon -c 1
