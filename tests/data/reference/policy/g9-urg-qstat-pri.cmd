# as root at 2026-11-28T00:06:36Z (epoch 1795824396)
$ qstat -pri -u *
