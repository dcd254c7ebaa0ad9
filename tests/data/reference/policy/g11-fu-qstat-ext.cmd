# as root at 2026-11-28T00:07:58Z (epoch 1795824478)
$ qstat -ext -u *
