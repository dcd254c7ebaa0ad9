# as root at 2026-11-28T00:05:50Z (epoch 1795824350)
$ sge_share_mon -c 1 -h
