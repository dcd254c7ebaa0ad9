# as root at 2026-11-28T00:09:02Z (epoch 1795824542)
$ qstat -urg -u *
