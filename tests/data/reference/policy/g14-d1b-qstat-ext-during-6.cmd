# as root at 2026-11-28T00:12:22Z (epoch 1795824742)
$ qstat -ext -u *
