# as root at 2026-11-27T23:55:13Z (epoch 1795823713)
$ qstat -ext -u * -xml
