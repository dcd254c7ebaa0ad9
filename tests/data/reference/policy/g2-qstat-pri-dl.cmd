# as sgeuser at 2026-11-27T23:53:30Z (epoch 1795823610)
$ qstat -pri
