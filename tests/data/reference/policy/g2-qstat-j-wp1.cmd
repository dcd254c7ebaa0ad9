# as sgeuser at 2026-11-27T23:53:17Z (epoch 1795823597)
$ qstat -j 14
