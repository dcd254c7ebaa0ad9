# as root at 2026-11-27T23:59:22Z (epoch 1795823962)
$ qstat -pri -u *
