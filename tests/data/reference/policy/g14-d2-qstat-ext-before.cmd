# as root at 2026-11-28T00:12:46Z (epoch 1795824766)
$ qstat -ext -u *
