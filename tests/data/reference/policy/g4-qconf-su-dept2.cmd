# as root at 2026-11-27T23:55:25Z (epoch 1795823725)
$ qconf -su dept2
