# as root at 2026-11-27T23:59:55Z (epoch 1795823995)
$ qstat -u *
