# as sgeuser at 2026-11-27T23:53:05Z (epoch 1795823585)
$ qstat -pri
