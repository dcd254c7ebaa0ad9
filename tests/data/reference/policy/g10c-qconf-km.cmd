# as root at 2026-11-28T00:07:15Z (epoch 1795824435)
$ qconf -km
