# as root at 2026-11-28T00:08:07Z (epoch 1795824487)
$ qstat -ext -u *
