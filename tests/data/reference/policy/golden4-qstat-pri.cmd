# as root at 2026-11-28T00:09:36Z (epoch 1795824576)
$ qstat -pri -u *
