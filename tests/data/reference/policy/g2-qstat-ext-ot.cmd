# as sgeuser at 2026-11-27T23:53:43Z (epoch 1795823623)
$ qstat -ext
