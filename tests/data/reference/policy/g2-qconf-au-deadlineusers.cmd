# as root at 2026-11-27T23:53:21Z (epoch 1795823601)
$ qconf -au sgeuser deadlineusers
