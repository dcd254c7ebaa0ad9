# as root at 2026-11-28T00:08:25Z (epoch 1795824505)
$ qconf -suser sgeuser2,sgeuser3
