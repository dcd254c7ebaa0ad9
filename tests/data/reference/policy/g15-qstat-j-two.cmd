# as root at 2026-11-28T00:13:44Z (epoch 1795824824)
$ qstat -j 120,121
