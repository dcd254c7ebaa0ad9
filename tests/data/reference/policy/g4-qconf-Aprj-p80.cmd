# as root at 2026-11-27T23:54:59Z (epoch 1795823699)
$ qconf -Aprj /work/wt-oracle/tests/data/reference/policy/g4-prj-p80.txt
