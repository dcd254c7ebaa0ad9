# as sgeuser at 2026-11-27T23:53:16Z (epoch 1795823596)
$ qstat -pri
