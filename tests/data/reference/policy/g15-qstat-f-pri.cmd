# as root at 2026-11-28T00:13:43Z (epoch 1795824823)
$ qstat -f -pri -u *
