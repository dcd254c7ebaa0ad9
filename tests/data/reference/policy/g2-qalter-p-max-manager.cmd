# as root at 2026-11-27T23:52:56Z (epoch 1795823576)
$ qalter -p 1024 15
