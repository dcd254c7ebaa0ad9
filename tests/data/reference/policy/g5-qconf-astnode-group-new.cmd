# as root at 2026-11-27T23:56:22Z (epoch 1795823782)
$ qconf -astnode /grp2=5
