# as sgeuser2 at 2026-11-28T00:00:51Z (epoch 1795824051)
$ qstat -j 57
