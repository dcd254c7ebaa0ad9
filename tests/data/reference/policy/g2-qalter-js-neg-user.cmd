# as sgeuser at 2026-11-27T23:53:34Z (epoch 1795823614)
$ qalter -js -1 13
