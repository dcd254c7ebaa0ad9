# as root at 2026-11-28T00:15:14Z (epoch 1795824914)
$ sge_share_mon -c 1 -h
