# as root at 2026-11-28T00:05:41Z (epoch 1795824341)
$ qstat -ext -u *
