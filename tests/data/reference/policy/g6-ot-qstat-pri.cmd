# as root at 2026-11-27T23:58:14Z (epoch 1795823894)
$ qstat -pri -u *
