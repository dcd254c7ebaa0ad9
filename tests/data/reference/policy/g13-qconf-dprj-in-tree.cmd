# as root at 2026-11-28T00:09:57Z (epoch 1795824597)
$ qconf -dprj p80
