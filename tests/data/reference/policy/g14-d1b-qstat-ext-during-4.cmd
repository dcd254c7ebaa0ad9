# as root at 2026-11-28T00:12:05Z (epoch 1795824725)
$ qstat -ext -u *
