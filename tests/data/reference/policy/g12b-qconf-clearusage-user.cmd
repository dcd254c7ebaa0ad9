# as root at 2026-11-28T00:08:28Z (epoch 1795824508)
$ qconf -clearusage sgeuser2
