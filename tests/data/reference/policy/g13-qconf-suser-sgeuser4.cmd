# as root at 2026-11-28T00:10:16Z (epoch 1795824616)
$ qconf -suser sgeuser4
