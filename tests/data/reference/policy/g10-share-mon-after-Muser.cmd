# as root at 2026-11-28T00:06:44Z (epoch 1795824404)
$ sge_share_mon -c 1 -h
