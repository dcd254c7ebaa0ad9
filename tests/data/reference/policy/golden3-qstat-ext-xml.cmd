# as root at 2026-11-28T00:09:24Z (epoch 1795824564)
$ qstat -ext -u * -xml
