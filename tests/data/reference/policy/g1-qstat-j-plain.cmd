# as sgeuser at 2026-11-27T23:52:24Z (epoch 1795823544)
$ qstat -j 7
