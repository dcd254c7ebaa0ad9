# as root at 2026-11-27T23:54:50Z (epoch 1795823690)
$ qalter -js 50 29
