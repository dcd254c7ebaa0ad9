# as sgeuser at 2026-11-28T00:09:06Z (epoch 1795824546)
$ qalter -p -100 79
