# as sgeuser at 2026-11-27T23:59:43Z (epoch 1795823983)
$ qstat -j 54
