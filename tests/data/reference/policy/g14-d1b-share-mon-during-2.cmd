# as root at 2026-11-28T00:11:49Z (epoch 1795824709)
$ sge_share_mon -c 1
