# as sgeuser at 2026-11-27T23:52:23Z (epoch 1795823543)
$ qstat
