# as root at 2026-11-28T00:08:16Z (epoch 1795824496)
$ qstat -pri -u *
