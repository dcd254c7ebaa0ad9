# as root at 2026-11-28T00:12:14Z (epoch 1795824734)
$ sge_share_mon -c 1
