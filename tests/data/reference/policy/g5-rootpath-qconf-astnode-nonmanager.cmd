# as sgeuser at 2026-11-27T23:56:06Z (epoch 1795823766)
$ qconf -astnode /Root/x=1
