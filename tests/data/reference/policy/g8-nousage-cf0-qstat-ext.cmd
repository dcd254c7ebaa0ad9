# as root at 2026-11-28T00:04:57Z (epoch 1795824297)
$ qstat -ext -u *
