# as root at 2026-11-28T00:01:32Z (epoch 1795824092)
$ qstat -u *
