# as root at 2026-11-28T00:14:14Z (epoch 1795824854)
$ sge_share_mon -c 1 -h
