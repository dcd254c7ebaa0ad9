# as root at 2026-11-28T00:10:48Z (epoch 1795824648)
$ qstat -ext -u *
