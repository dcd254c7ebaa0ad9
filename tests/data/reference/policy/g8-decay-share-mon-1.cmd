# as root at 2026-11-28T00:06:38Z (epoch 1795824398)
$ sge_share_mon -c 1 -h
