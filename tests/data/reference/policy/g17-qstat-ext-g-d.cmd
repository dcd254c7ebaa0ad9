# as root at 2026-11-28T00:16:38Z (epoch 1795824998)
$ qstat -ext -g d -u *
