# as root at 2026-11-28T00:07:44Z (epoch 1795824464)
$ qstat -ext -u *
