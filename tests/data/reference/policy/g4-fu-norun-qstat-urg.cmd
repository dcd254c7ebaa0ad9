# as root at 2026-11-27T23:54:45Z (epoch 1795823685)
$ qstat -urg -u *
