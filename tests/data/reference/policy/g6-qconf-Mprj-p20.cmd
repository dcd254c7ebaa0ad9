# as root at 2026-11-27T23:58:14Z (epoch 1795823894)
$ qconf -Mprj /work/wt-oracle/tests/data/reference/policy/g6-prj-p20.txt
