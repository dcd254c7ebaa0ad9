# as sgeuser at 2026-11-27T23:57:19Z (epoch 1795823839)
$ sge_share_mon -c 1
