# as sgeuser at 2026-11-27T23:59:46Z (epoch 1795823986)
$ qstat -j 54 -xml
