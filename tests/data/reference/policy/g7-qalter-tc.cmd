# as sgeuser at 2026-11-28T00:00:20Z (epoch 1795824020)
$ qalter -tc 2 56
