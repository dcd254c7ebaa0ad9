# as root at 2026-11-28T00:06:42Z (epoch 1795824402)
$ sge_share_mon -c 1 -h
