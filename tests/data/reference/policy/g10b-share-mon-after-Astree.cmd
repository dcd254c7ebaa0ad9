# as root at 2026-11-28T00:07:12Z (epoch 1795824432)
$ sge_share_mon -c 1 -h
