# as root at 2026-11-27T23:54:30Z (epoch 1795823670)
$ qstat -pri -u *
