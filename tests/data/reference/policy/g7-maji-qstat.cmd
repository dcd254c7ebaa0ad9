# as root at 2026-11-28T00:00:51Z (epoch 1795824051)
$ qstat -u *
