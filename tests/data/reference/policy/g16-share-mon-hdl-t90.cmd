# as root at 2026-11-28T00:15:45Z (epoch 1795824945)
$ sge_share_mon -c 1
