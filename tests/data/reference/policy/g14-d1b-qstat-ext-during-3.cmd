# as root at 2026-11-28T00:11:57Z (epoch 1795824717)
$ qstat -ext -u *
