# as root at 2026-11-28T00:06:08Z (epoch 1795824368)
$ qstat -ext -u *
