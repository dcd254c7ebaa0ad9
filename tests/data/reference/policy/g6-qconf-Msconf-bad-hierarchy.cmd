# as root at 2026-11-27T23:59:25Z (epoch 1795823965)
$ qconf -Msconf g6-ssconf-bad-hierarchy.txt
