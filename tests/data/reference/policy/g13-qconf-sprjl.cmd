# as root at 2026-11-28T00:09:51Z (epoch 1795824591)
$ qconf -sprjl
