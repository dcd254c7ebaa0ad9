# as sgeuser at 2026-11-27T23:52:55Z (epoch 1795823575)
$ qalter -p 5 11
