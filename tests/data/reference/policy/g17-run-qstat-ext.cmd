# as root at 2026-11-28T00:16:46Z (epoch 1795825006)
$ qstat -ext -u *
