# as sgeuser at 2026-11-27T23:52:47Z (epoch 1795823567)
$ qstat -pri
