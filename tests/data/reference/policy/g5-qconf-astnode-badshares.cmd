# as root at 2026-11-27T23:56:15Z (epoch 1795823775)
$ qconf -astnode /sgeuser4=abc
