# as root at 2026-11-27T23:53:33Z (epoch 1795823613)
$ qalter -ot 100 14
