# as root at 2026-11-28T00:07:12Z (epoch 1795824432)
$ qconf -mstnode /sgeuser2=20
