# as root at 2026-11-28T00:10:07Z (epoch 1795824607)
$ qstat -ext -u sgeuser2
