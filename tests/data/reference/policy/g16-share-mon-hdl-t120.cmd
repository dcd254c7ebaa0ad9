# as root at 2026-11-28T00:16:15Z (epoch 1795824975)
$ sge_share_mon -c 1
