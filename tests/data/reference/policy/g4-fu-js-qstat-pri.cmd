# as root at 2026-11-27T23:54:59Z (epoch 1795823699)
$ qstat -pri -u *
